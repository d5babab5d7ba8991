<#
.SYNOPSIS
Gets things.
#>
function Get-Thing {
  param([string]$Name)
  Write-Output $Name
  Invoke-Helper -X 1
}
class Widget {
  [string]$Id
  [void] Show() { Write-Host $this.Id }
}
. ./lib.ps1
Import-Module Foo
$Global:Count = 0
function global:Prompt { "PS> " }

<#
.SYNOPSIS
Removes things.
.DESCRIPTION
Quietly.
#>
function Remove-Thing {
  0
}

# Counts things.
# Fast.
function Measure-Thing {
  1
}
